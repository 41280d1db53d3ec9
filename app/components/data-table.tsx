/** A table of text cells under column headings: the record page, a decision's context and the print view. */
export function DataTable({
  columns,
  rows,
  className,
  caption,
}: {
  columns: string[];
  rows: string[][];
  className?: string;
  caption?: string | null;
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
            {row.map((cell, j) => (
              <td key={j}>{cell}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
