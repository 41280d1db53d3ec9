/**
 * Charts drawn on the server as inline SVG (no library, no JavaScript): each is one image with a
 * name (`<title>`) and a text description (`<desc>`) listing its values, followed by a table of
 * the same numbers, the accessible and printable form. Used by the year-end review
 * (components/review.tsx) and /insights (components/insights.tsx); styles in styles/reviews.css.
 */
import type { ReactNode } from "react";

export type Tone = "primary" | "success" | "danger" | "warning" | "muted";
export type ChartRow = { key: string; label: string; value: number; tone?: Tone };
/** A row of a chart with several series: one value (or none) per series. */
export type SeriesRow = { key: string; label: string; values: (number | null)[] };
export type Series = { label: string; tone: Tone };

const BAR_WIDTH = 200;
/** Room for the row names: about 7 px a character at the labels' 13 px, within 120-260. */
const labelWidth = (labels: string[]) =>
  Math.min(260, Math.max(120, Math.ceil(Math.max(0, ...labels.map((l) => l.length)) * 7.2) + 14));

const plain = (n: number) => String(n);

/** The frame every chart shares: caption, the SVG image with its name and description, then the table. */
function ChartFigure({
  id,
  title,
  description,
  viewBox,
  legend,
  children,
  svg,
}: {
  id: string;
  title: string;
  description: string;
  viewBox: string;
  legend?: Series[];
  children: ReactNode;
  svg: ReactNode;
}) {
  return (
    <figure className="review-chart" aria-labelledby={`${id}-caption`}>
      <figcaption id={`${id}-caption`}>{title}</figcaption>
      {legend && legend.length > 1 ? (
        <ul className="chart-legend" aria-hidden="true">
          {legend.map((s) => (
            <li key={s.label}>
              <span className={`chart-swatch chart-bar-${s.tone}`} /> {s.label}
            </li>
          ))}
        </ul>
      ) : null}
      <svg
        role="img"
        aria-labelledby={`${id}-svg-title ${id}-svg-desc`}
        viewBox={viewBox}
        className="review-chart-svg"
        preserveAspectRatio="xMinYMin meet"
      >
        <title id={`${id}-svg-title`}>{title}</title>
        <desc id={`${id}-svg-desc`}>{description}</desc>
        {svg}
      </svg>
      {children}
    </figure>
  );
}

/**
 * Horizontal bars, one group per row and one bar per series in it. `children` is the table shown
 * beneath; without it, a two-column table of `category` and `unit` (visually hidden unless
 * `showTable`), as the review's summary has.
 */
export function BarChart({
  id,
  title,
  category,
  unit = "MOCs",
  rows,
  series,
  format = plain,
  showTable = false,
  children,
}: {
  id: string;
  title: string;
  category: string;
  unit?: string;
  rows: ChartRow[] | SeriesRow[];
  series?: Series[];
  format?: (n: number) => string;
  showTable?: boolean;
  children?: ReactNode;
}) {
  const multi: SeriesRow[] = rows.map((r) => ("values" in r ? r : { key: r.key, label: r.label, values: [r.value] }));
  const tones: Series[] = series ?? [{ label: unit, tone: "primary" }];
  const toneOf = (row: number, s: number) =>
    series ? tones[s]!.tone : ((rows[row] as ChartRow).tone ?? tones[0]!.tone);
  const barHeight = multi.length && tones.length > 1 ? 12 : 20;
  const groupHeight = tones.length * barHeight + 10;
  const max = Math.max(1, ...multi.flatMap((r) => r.values.map((v) => v ?? 0)));
  const height = multi.length * groupHeight + 8;
  const LABEL_WIDTH = labelWidth(multi.map((r) => r.label));
  const WIDTH = LABEL_WIDTH + BAR_WIDTH + 60;
  const description = multi
    .map((r) =>
      tones.length > 1
        ? `${r.label}: ${r.values.map((v, i) => `${tones[i]!.label} ${v === null ? "none" : format(v)}`).join(", ")}`
        : `${r.label}: ${r.values[0] === null ? "none" : format(r.values[0]!)}`,
    )
    .join("; ");
  return (
    <ChartFigure
      id={id}
      title={title}
      description={description}
      viewBox={`0 0 ${WIDTH} ${height}`}
      legend={series}
      svg={multi.map((row, index) => (
        <g key={row.key} transform={`translate(0 ${index * groupHeight + 4})`}>
          <text
            x={LABEL_WIDTH - 10}
            y={groupHeight / 2}
            textAnchor="end"
            dominantBaseline="middle"
            className="chart-label"
          >
            {row.label}
          </text>
          {row.values.map((value, s) => {
            const width = Math.round(((value ?? 0) / max) * BAR_WIDTH);
            const y = 5 + s * barHeight;
            return (
              <g key={s}>
                <rect
                  x={LABEL_WIDTH}
                  y={y}
                  width={Math.max(width, (value ?? 0) > 0 ? 2 : 0)}
                  height={barHeight - 2}
                  rx={2}
                  className={`chart-bar chart-bar-${toneOf(index, s)}`}
                />
                <text
                  x={LABEL_WIDTH + width + 6}
                  y={y + barHeight / 2}
                  dominantBaseline="middle"
                  className="chart-value"
                >
                  {value === null ? "–" : format(value)}
                </text>
              </g>
            );
          })}
        </g>
      ))}
    >
      {children !== undefined ? (
        children
      ) : (
        <table className={showTable ? "chart-table" : "visually-hidden"}>
          <caption>{title}</caption>
          <thead>
            <tr>
              <th scope="col">{category}</th>
              <th scope="col">{unit}</th>
            </tr>
          </thead>
          <tbody>
            {multi.map((row) => (
              <tr key={row.key}>
                <th scope="row">{row.label}</th>
                <td>{row.values[0]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </ChartFigure>
  );
}

/**
 * Vertical columns over time (one per day or month), for series too long for a row each: the
 * first and last labels are drawn under the axis, every value is in the description and the table.
 */
export function ColumnChart({
  id,
  title,
  points,
  unit,
  children,
}: {
  id: string;
  title: string;
  points: { key: string; label: string; value: number }[];
  unit: string;
  children: ReactNode;
}) {
  const width = 440;
  const plot = 120;
  const max = Math.max(1, ...points.map((p) => p.value));
  const step = points.length ? (width - 40) / points.length : 0;
  const counted = points.filter((p) => p.value > 0);
  const description = counted.length
    ? `${unit}: ${counted.map((p) => `${p.label} ${p.value}`).join("; ")}; none on the other days`
    : `No ${unit.toLowerCase()} in this period`;
  return (
    <ChartFigure
      id={id}
      title={title}
      description={description}
      viewBox={`0 0 ${width} ${plot + 40}`}
      svg={
        <>
          <text x={0} y={12} className="chart-label">
            {max}
          </text>
          <line x1={30} x2={width} y1={plot + 4} y2={plot + 4} className="chart-axis" />
          {points.map((p, i) => {
            const h = Math.round((p.value / max) * (plot - 10));
            return (
              <rect
                key={p.key}
                x={34 + i * step}
                y={plot + 4 - h}
                width={Math.max(1, step - 1)}
                height={h}
                className="chart-bar chart-bar-primary"
              />
            );
          })}
          {points.length ? (
            <>
              <text x={34} y={plot + 24} className="chart-label">
                {points[0]!.label}
              </text>
              <text x={width} y={plot + 24} textAnchor="end" className="chart-label">
                {points.at(-1)!.label}
              </text>
            </>
          ) : (
            <text x={width / 2} y={plot / 2} textAnchor="middle" className="chart-label">
              None in this period
            </text>
          )}
        </>
      }
    >
      {children}
    </ChartFigure>
  );
}

/** Headline numbers above the charts, as a grid of labelled figures. */
export function StatGrid({ stats }: { stats: { label: string; value: number | string }[] }) {
  return (
    <dl className="stat-grid review-stats">
      {stats.map((s) => (
        <div className="stat" key={s.label}>
          <dt>{s.label}</dt>
          <dd className="stat-number">{s.value}</dd>
        </div>
      ))}
    </dl>
  );
}
