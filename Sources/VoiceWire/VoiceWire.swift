// The wire formats of the voice chat engine: voice packets and receiver reports.
enum WirePlaceholder {}
