extension Dictionary {
    /// Runs `body` on the value for `key` in place; nil, without calling it, when there is none.
    ///
    /// `dictionary[key]?.mutate()` goes through the subscript's `_modify` coroutine, whose frame
    /// the runtime allocates on the heap when the accessor is not inlined: one allocation per
    /// access on the engine thread. Going through the value's index does not.
    @inlinable
    public mutating func modifyValue<Result>(forKey key: Key, _ body: (inout Value) throws -> Result) rethrows
        -> Result?
    {
        guard let index = index(forKey: key) else { return nil }
        return try body(&values[index])
    }
}
