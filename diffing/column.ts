const BLOCK_BITS = 16;
const BLOCK_ROWS = 1 << BLOCK_BITS;
const ROW_MASK = BLOCK_ROWS - 1;
/** The first block's rows at first: it doubles up to BLOCK_ROWS. */
const FIRST_ROWS = 64;

/**
 * A growable table of 32-bit words, `width` per row, kept in fixed blocks: growing adds a block and
 * never copies, so ten million rows never need a second buffer of their size. The first block
 * starts small and doubles: a folder of ten thousand short processes holds four tables each, and a
 * whole block apiece (1.3 MB) made its comparison gigabytes, most of it the collector's work.
 */
export class Column {
  private readonly blocks: Uint32Array[] = [];
  /** the block the next row goes into */
  tail = new Uint32Array(0);
  length = 0;

  constructor(private readonly width: number) {}

  /** Makes room for one more row: its words go into `tail` from the offset returned. */
  add(): number {
    const row = this.length & ROW_MASK;
    const offset = row * this.width;
    if (row === 0)
      this.blocks.push((this.tail = new Uint32Array((this.length === 0 ? FIRST_ROWS : BLOCK_ROWS) * this.width)));
    else if (offset === this.tail.length) this.growFirst(row);
    this.length++;
    return offset;
  }

  get(row: number, word: number): number {
    return this.blocks[row >>> BLOCK_BITS]![(row & ROW_MASK) * this.width + word]!;
  }

  /** The first block, twice as large (it alone is ever smaller than BLOCK_ROWS). */
  private growFirst(rows: number): void {
    const grown = new Uint32Array(Math.min(rows * 2, BLOCK_ROWS) * this.width);
    grown.set(this.tail);
    this.tail = grown;
    this.blocks[0] = grown;
  }
}
