/**
 * The JSON body of `res`, or undefined when it is not JSON. When `signal` calls the read off part way
 * (a page moving on to newer data), the abort is thrown: a body cut short is not an empty answer.
 */
export async function readJsonBody(res: Response, signal?: AbortSignal | null): Promise<unknown> {
  try {
    return await res.json();
  } catch (error) {
    if (signal?.aborted) throw error;
    return undefined;
  }
}
