const BLOCK_BITS = 16;
const BLOCK_ROWS = 1 << BLOCK_BITS;
const ROW_MASK = BLOCK_ROWS - 1;

/**
 * A growable table of 32-bit words, `width` per row, kept in fixed blocks: growing adds a block and
 * never copies, so ten million rows never need a second buffer of their size.
 */
export class Column {
  private readonly blocks: Uint32Array[] = [];
  /** the block the next row goes into */
  tail = new Uint32Array(0);
  length = 0;

  constructor(private readonly width: number) {}

  /** Makes room for one more row: its words go into `tail` from the offset returned. */
  add(): number {
    const offset = (this.length & ROW_MASK) * this.width;
    if (offset === 0) this.blocks.push((this.tail = new Uint32Array(BLOCK_ROWS * this.width)));
    this.length++;
    return offset;
  }

  get(row: number, word: number): number {
    return this.blocks[row >>> BLOCK_BITS]![(row & ROW_MASK) * this.width + word]!;
  }
}
