/**
 * A first-in first-out buffer of at most `capacity` items: pushing onto a full buffer drops the
 * oldest item. Holds what a filter accumulates between two polls, so a filter that is never polled
 * cannot grow without bound.
 */
export class BoundedBuffer<T> {
  private items: T[] = [];
  /** Index of the oldest item; moves only once the buffer is full. */
  private start = 0;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    }
  }

  /** Number of items held. */
  get size(): number {
    return this.items.length;
  }

  /** Appends `item`, dropping the oldest item when the buffer is full. */
  push(item: T): void {
    if (this.items.length < this.capacity) {
      this.items.push(item);
      return;
    }
    this.items[this.start] = item;
    this.start = (this.start + 1) % this.capacity;
  }

  /** Returns every item, oldest first, and empties the buffer. */
  drain(): T[] {
    const { items, start } = this;
    this.items = [];
    this.start = 0;
    return start === 0 ? items : [...items.slice(start), ...items.slice(0, start)];
  }
}
