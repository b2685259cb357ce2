/** A value, or a promise of it: what a method, the registry or the dispatcher give back. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Applies `fn` to `value` at once when it is already there, or once its promise resolves
 * (`onRejected` then takes a rejection): the result is a promise only when `value` was one, so an
 * answer that needs no waiting goes out without a microtask.
 */
export function andThen<T, R>(
  value: MaybePromise<T>,
  fn: (resolved: T) => R,
  onRejected?: (error: unknown) => R,
): MaybePromise<R> {
  return value instanceof Promise ? value.then(fn, onRejected) : fn(value);
}
