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
