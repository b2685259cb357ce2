/**
 * A method result that is already JSON text; the registry sends it as is instead of serializing.
 * `T` is the value the text encodes, so a handler's pre-serialized answer is checked like any other.
 */
export class RawJson<T = unknown> {
  /** The encoded value's type; never set (it only types the text). */
  declare readonly encodes?: T;

  constructor(readonly json: string) {}
}
