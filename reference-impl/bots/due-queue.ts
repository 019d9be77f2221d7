// The polls due next, earliest first: a binary min-heap of (due time, item), so one timer serves every bot operator.
export class DueQueue<T> {
  private heap: Array<{ at: number; item: T }> = [];

  get size(): number { return this.heap.length; }
  /** Earliest due time, or undefined when empty. */
  peekAt(): number | undefined { return this.heap[0]?.at; }

  push(at: number, item: T): void {
    const h = this.heap;
    h.push({ at, item });
    for (let i = h.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.at <= h[i]!.at) break;
      [h[parent], h[i]] = [h[i]!, h[parent]!];
      i = parent;
    }
  }

  /** Removes and returns the earliest entry. */
  pop(): { at: number; item: T } | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (!top || !last || h.length === 0) return top;
    h[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && h[l]!.at < h[m]!.at) m = l;
      if (r < h.length && h[r]!.at < h[m]!.at) m = r;
      if (m === i) break;
      [h[m], h[i]] = [h[i]!, h[m]!];
      i = m;
    }
    return top;
  }

  clear(): void { this.heap = []; }
}
