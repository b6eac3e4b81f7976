import VoiceCore
import VoiceWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Why an admin request was refused, in words.
package struct RelayAdminFailure: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
