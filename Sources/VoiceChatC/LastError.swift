import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Each thread's last error, as a C string the library owns until the thread's next call: what
/// `vc_last_error_message` returns. Kept in a pthread key, freed with its thread.
enum LastError {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { free($0) }
        return key
    }()

    static func set(_ message: String) {
        free(pthread_getspecific(key))
        pthread_setspecific(key, strdup(message))
    }

    /// Forgets the thread's last error without allocating (a successful call on an audio thread).
    static func clear() {
        guard let current = pthread_getspecific(key) else { return }
        free(current)
        pthread_setspecific(key, nil)
    }

    static var current: UnsafePointer<CChar>? {
        pthread_getspecific(key).map { UnsafePointer($0.assumingMemoryBound(to: CChar.self)) }
    }
}

@_cdecl("vc_last_error_message")
public func cLastErrorMessage() -> UnsafePointer<CChar>? {
    LastError.current ?? noError
}

nonisolated(unsafe) private let noError: UnsafePointer<CChar> = UnsafePointer(strdup("")!)

@_cdecl("vc_abi_version")
public func cABIVersion() -> UInt32 { 1 }
