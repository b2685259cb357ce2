import type { Stream } from "@libp2p/interface";
import * as lp from "it-length-prefixed";

/** Writes `frames` to `stream`, each length-prefixed (unsigned varint), then closes the writing side. */
export async function writeFrames(
  stream: Stream,
  frames: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
): Promise<void> {
  await stream.sink(lp.encode(frames));
}

/**
 * The length-prefixed frames of `stream`, each at most `maxFrameBytes` (a longer one, or a frame
 * arriving after `timeoutMs` from the start, aborts the stream and throws).
 */
export async function* readFrames(
  stream: Stream,
  maxFrameBytes: number,
  timeoutMs: number,
): AsyncGenerator<Uint8Array> {
  const timer = setTimeout(() => stream.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  try {
    for await (const frame of lp.decode(stream.source, { maxDataLength: maxFrameBytes }))
      yield frame.subarray();
  } finally {
    clearTimeout(timer);
  }
}

/** The first frame of `stream`; throws when the stream ends without one. */
export async function readOneFrame(
  stream: Stream,
  maxFrameBytes: number,
  timeoutMs: number,
): Promise<Uint8Array> {
  for await (const frame of readFrames(stream, maxFrameBytes, timeoutMs)) return frame;
  throw new Error("stream ended without a message");
}
