/**
 * A binary min-heap. Entries are never removed from the middle: the owner skips entries that are
 * no longer valid when they reach the top ({@link PriceHeap.peek} with a validity test) and rebuilds
 * the heap when stale entries pile up.
 */
export class PriceHeap<T> {
  private items: T[] = [];

  constructor(private readonly less: (a: T, b: T) => boolean) {}

  /** Entries held, stale ones included. */
  get size(): number {
    return this.items.length;
  }

  /** Adds an entry. */
  push(item: T): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  /** The smallest entry that passes `valid`, dropping the invalid ones above it. */
  peek(valid: (item: T) => boolean): T | undefined {
    while (this.items.length > 0) {
      const top = this.items[0]!;
      if (valid(top)) return top;
      this.pop();
    }
    return undefined;
  }

  /** Replaces the contents with `items` (O(n)). */
  rebuild(items: T[]): void {
    this.items = items;
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  private pop(): void {
    const last = this.items.pop()!;
    if (this.items.length === 0) return;
    this.items[0] = last;
    this.siftDown(0);
  }

  private siftDown(start: number): void {
    const items = this.items;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < items.length && this.less(items[left]!, items[smallest]!)) smallest = left;
      if (right < items.length && this.less(items[right]!, items[smallest]!)) smallest = right;
      if (smallest === i) return;
      [items[i], items[smallest]] = [items[smallest]!, items[i]!];
      i = smallest;
    }
  }
}

/**
 * The cheapest of a changing set of transactions, in geth's price order at a base fee: a
 * {@link PriceHeap} that members are pushed to as they join; entries of those that left are skipped
 * when they surface, and the heap is rebuilt from the live members when the base fee changes or
 * stale entries outnumber them.
 */
export class CheapestIndex<T> {
  private readonly heap: PriceHeap<T>;
  private readonly held = new Set<T>();
  private baseFee = 0n;

  /**
   * @param cheaper price order at a base fee
   * @param isMember whether an entry still belongs to the set
   * @param members the live members, for a rebuild
   */
  constructor(
    private readonly cheaper: (a: T, b: T, baseFee: bigint) => boolean,
    private readonly isMember: (item: T) => boolean,
    private readonly members: () => T[],
  ) {
    this.heap = new PriceHeap((a, b) => this.cheaper(a, b, this.baseFee));
  }

  /** Adds a member (no-op when it has an entry already). */
  push(item: T, liveCount: number): void {
    if (this.held.has(item)) return;
    this.held.add(item);
    this.heap.push(item);
    // Past twice the live members (amortised O(1) per push) the heap is rebuilt without the stale.
    if (this.heap.size > 2 * liveCount + 64) this.rebuild(this.baseFee);
  }

  /** The cheapest member at `baseFee`. */
  cheapest(baseFee: bigint): T | undefined {
    if (baseFee !== this.baseFee) this.rebuild(baseFee);
    return this.heap.peek((item) => {
      if (this.isMember(item)) return true;
      this.held.delete(item);
      return false;
    });
  }

  private rebuild(baseFee: bigint): void {
    this.baseFee = baseFee;
    const live = this.members();
    this.held.clear();
    for (const item of live) this.held.add(item);
    this.heap.rebuild(live);
  }
}
