import type { ReactNode } from "react";

/**
 * A table of text cells under column headings: the record page, a decision's context and the print
 * view; `cell` renders a cell otherwise than as its text (a link).
 */
export function DataTable({
  columns,
  rows,
  className,
  caption,
  cell,
}: {
  columns: string[];
  rows: string[][];
  className?: string;
  caption?: string | null;
  cell?: (text: string, row: number, column: number) => ReactNode;
}) {
  return (
    <table className={className}>
      {caption ? <caption>{caption}</caption> : null}
      <thead>
        <tr>
          {columns.map((label) => (
            <th key={label} scope="col">
              {label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, i) => (
          <tr key={i}>
            {row.map((text, j) => (
              <td key={j}>{cell ? cell(text, i, j) : text}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
