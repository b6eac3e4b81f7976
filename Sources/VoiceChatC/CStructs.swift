import CVoiceChatABI

/// A C struct that begins with its own size, so that the library can tell a struct from an
/// older or newer header (and garbage) from one it knows.
protocol SizedStruct {
    var struct_size: UInt32 { get }
}

extension vc_relay_options: SizedStruct {}
extension vc_engine_options: SizedStruct {}
extension vc_relay_join_options: SizedStruct {}
extension vc_event: SizedStruct {}

/// What a C caller passed at `argument`: present, and of the size this library was built with;
/// `initializer` is what fills one (or sets its size).
func sized<Struct: SizedStruct>(_ pointer: UnsafePointer<Struct>?, _ argument: String, filledBy initializer: String)
    throws(CallFailure) -> Struct
{
    guard let pointer else { throw .invalidArgument("\(argument) is NULL; \(initializer)") }
    let size = UInt32(MemoryLayout<Struct>.size)
    guard pointer.pointee.struct_size == size else {
        throw .invalidArgument(
            "\(argument)'s struct_size is \(pointer.pointee.struct_size), not \(size): \(initializer) from the "
                + "header this library was built with")
    }
    return pointer.pointee
}

/// Where a C caller wants a new handle put, cleared until there is one.
func handlePlace(_ place: UnsafeMutablePointer<OpaquePointer?>?, _ argument: String) throws(CallFailure)
    -> UnsafeMutablePointer<OpaquePointer?>
{
    guard let place else {
        throw .invalidArgument("\(argument) is NULL; pass where to put the new \(argument)'s handle")
    }
    place.pointee = nil
    return place
}
