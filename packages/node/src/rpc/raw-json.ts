/**
 * A method result that is already JSON text; the registry sends it as is instead of serializing.
 * `T` is the value the text encodes, so a handler's pre-serialized answer is checked like any other.
 */
export class RawJson<T = unknown> {
  /** The encoded value's type; never set (it only types the text). */
  declare readonly encodes?: T;

  constructor(readonly json: string) {}
}

/**
 * The JSON text `json` resolves to, as the answer it encodes: text an execution worker made from a
 * result of type `T` (traces, simulations, built payloads), sent without parsing it here.
 */
export async function answeredAsJson<T>(json: Promise<string>): Promise<RawJson<T>> {
  return new RawJson<T>(await json);
}
