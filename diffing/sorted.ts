/** The last position whose number is at most `value`, in ascending `numbers` (0 when none is). */
export function lastAtMost(numbers: readonly number[], value: number): number {
  let low = 0;
  let high = numbers.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (numbers[middle]! <= value) low = middle;
    else high = middle - 1;
  }
  return low;
}
