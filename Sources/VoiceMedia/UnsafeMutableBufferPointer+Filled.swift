extension UnsafeMutableBufferPointer {
    /// `count` elements, each `value`: working memory made once, before any real-time use.
    static func allocate(count: Int, filledWith value: Element) -> Self {
        let buffer = Self.allocate(capacity: count)
        buffer.initialize(repeating: value)
        return buffer
    }
}
