// The media path: send pipeline, receive streams, mixing.
enum MediaPlaceholder {}
