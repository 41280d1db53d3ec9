/**
 * The period, department and vessel filter of /insights and of the management review pack
 * (/insights/review): one GET form (works without JavaScript), its errors by field.
 */
import { DEPARTMENTS } from "#db/schema/enums";
import { FilterForm, FilterSelect } from "~/components/list-filters";
import { departmentLabel } from "~/components/moc";
import { SCOPE_LABELS } from "~/models/fleet/vessel.constants";
import { NOT_RECORDED } from "~/models/moc/moc-names";

export type InsightsFilterValues = { from: string; to: string; department: string; vessel: string };

function DateField({ name, label, value, error }: { name: string; label: string; value: string; error?: string }) {
  return (
    <div className="field">
      <label htmlFor={`insights-${name}`}>{label}</label>
      <input
        id={`insights-${name}`}
        type="date"
        name={name}
        defaultValue={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `insights-${name}-error` : undefined}
      />
      {error ? (
        <p className="field-error" id={`insights-${name}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

export function InsightsFilterForm({
  label,
  resetTo,
  values,
  errors,
  vessels,
}: {
  label: string;
  resetTo: string;
  values: InsightsFilterValues;
  errors: { field: string; message: string }[];
  vessels: (readonly [string, string])[];
}) {
  const errorOf = (field: string) => errors.find((e) => e.field === field)?.message;
  return (
    <FilterForm label={label} resetTo={resetTo}>
      <div className="insights-filters">
        <DateField name="from" label="From" value={values.from} error={errorOf("from")} />
        <DateField name="to" label="To" value={values.to} error={errorOf("to")} />
        <FilterSelect
          id="insights-department"
          name="department"
          label="Department"
          value={values.department}
          choices={DEPARTMENTS.map((d) => [d, departmentLabel(d)] as const)}
          any="All departments"
        />
        <FilterSelect
          id="insights-vessel"
          name="vessel"
          label="Vessel"
          value={values.vessel}
          choices={[...vessels, ["office", SCOPE_LABELS.office], ["fleet", SCOPE_LABELS.fleet], ["none", NOT_RECORDED]]}
          any="All vessels and scopes"
        />
      </div>
      {errorOf("vessel") ? (
        <p className="field-error" role="alert">
          {errorOf("vessel")}
        </p>
      ) : null}
      {errorOf("department") ? (
        <p className="field-error" role="alert">
          {errorOf("department")}
        </p>
      ) : null}
    </FilterForm>
  );
}
