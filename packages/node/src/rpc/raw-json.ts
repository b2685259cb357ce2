/** A method result that is already JSON text; the registry sends it as is instead of serializing. */
export class RawJson {
  constructor(readonly json: string) {}
}
