/** The most bytes a WebSocket frame header adds to a server's message (RFC 6455: 2, plus 8 for the length). */
const FRAME_HEADER_BYTES = 10;

/**
 * Whether a message of `text` may join the `queuedBytes` already waiting to be written to a WebSocket
 * client, under `maxQueuedBytes` (node and gateway alike): yes when the queue stays within the bound,
 * and for any message when nothing waits (one answer larger than the bound goes out alone: the
 * response cap bounds it). No means the client has fallen that far behind: it is disconnected, so a
 * client that does not read never holds more than the bound.
 */
export function fitsSendQueue(queuedBytes: number, text: string, maxQueuedBytes: number): boolean {
  return queuedBytes === 0 || queuedBytes + Buffer.byteLength(text) + FRAME_HEADER_BYTES <= maxQueuedBytes;
}
