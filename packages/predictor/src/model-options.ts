import { DEFAULT_MODEL_PARAMETERS, type ModelParameters } from "./parameters.js";

/** Options shared by {@link predict} and {@link backtest}. */
export interface ModelOptions {
  /** Overrides of the model constants (research and tests); defaults are {@link DEFAULT_MODEL_PARAMETERS}. */
  parameters?: Partial<ModelParameters>;
}

/** The model constants with `options.parameters` applied. */
export function resolveParameters(options: ModelOptions | undefined): Readonly<ModelParameters> {
  return { ...DEFAULT_MODEL_PARAMETERS, ...options?.parameters };
}

/** Throws a RangeError unless `horizon` is a whole number of days >= 1. */
export function assertHorizon(horizon: number): void {
  if (!(Number.isSafeInteger(horizon) && horizon >= 1)) {
    throw new RangeError(`horizon must be a whole number of days >= 1, got ${horizon}`);
  }
}
