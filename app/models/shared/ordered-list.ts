/**
 * An admin-kept list in order (the ranks on board, the external reference types): moving an entry
 * up or down swaps it with its neighbour. One rule for both lists (ranks.server.ts,
 * references.server.ts), which write the new sorts in their own transaction.
 */

export type Move = "up" | "down";

/**
 * `list[index]` moved one place: its neighbour, and the sort each of the two takes — swapped
 * through their positions, so equal sorts never leave them tied; null when it is already first
 * (up) or last (down).
 */
export function moveInList<T extends { sort: number }>(
  list: readonly T[],
  index: number,
  move: Move,
): { other: T; sorts: [T, number][] } | null {
  const row = list[index];
  const other = list[move === "up" ? index - 1 : index + 1];
  if (!row || !other) return null;
  const [a, b] = move === "up" ? [other, row] : [row, other];
  const aSort = Math.min(a.sort, b.sort);
  const bSort = a.sort === b.sort ? aSort + 1 : Math.max(a.sort, b.sort);
  return {
    other,
    sorts: [
      [a, bSort],
      [b, aSort],
    ],
  };
}

/** What a move says in the list's audit entry: "Bosun, now above Cook". */
export const movedText = (name: string, move: Move, other: string) =>
  `${name}, now ${move === "up" ? "above" : "below"} ${other}`;
