import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * The prototype of @ethereumjs/evm's Interpreter class. The package does not export the class, so
 * its module is reached by its file next to the package's entry point; undefined when that file or
 * class is not where this version of the package keeps it.
 */
export async function interpreterPrototype(): Promise<object | undefined> {
  try {
    const require = createRequire(import.meta.url);
    const cjsIndex = require.resolve("@ethereumjs/evm");
    const esmInterpreter = join(dirname(cjsIndex), "..", "esm", "interpreter.js");
    const module = (await import(pathToFileURL(esmInterpreter).href)) as {
      Interpreter?: { prototype: object };
    };
    return module.Interpreter?.prototype;
  } catch {
    return undefined;
  }
}

/**
 * The interpreter's step method as the wrappers of {@link wrapRunStep} see it: undefined when the
 * step ran to its end synchronously (patches/ let a step without `step` listeners do so unless its
 * opcode waits for state), else the promise of its end.
 */
export type RunStep<This> = (this: This, opcode: unknown) => Promise<void> | undefined;

/**
 * Replaces the interpreter's `runStep` (run before every opcode) with `wrap(original)`, for every EVM
 * of the process. Throws, naming `purpose`, when this version of @ethereumjs/evm keeps no interpreter
 * where {@link interpreterPrototype} looks.
 */
export async function wrapRunStep<This>(
  purpose: string,
  wrap: (runStep: RunStep<This>) => RunStep<This>,
): Promise<void> {
  const prototype = (await interpreterPrototype()) as { runStep?: RunStep<This> } | undefined;
  const runStep = prototype?.runStep;
  if (!prototype || typeof runStep !== "function") {
    throw new Error(`cannot ${purpose}: @ethereumjs/evm's interpreter was not found`);
  }
  prototype.runStep = wrap(runStep);
}
