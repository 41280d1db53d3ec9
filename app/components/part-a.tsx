import { getFormProps, type DefaultValue, type SubmissionResult } from "@conform-to/react";
import { Form } from "~/components/form";
import { DEPARTMENTS } from "#db/schema/enums";
import type { partAPageSchema } from "~/models/moc/moc.schema";
import type { OriginatorFormDoc } from "~/models/moc/moc-document";
import { useSchemaForm, type FormShape } from "~/components/schema-form";
import {
  CheckboxGroupField,
  RichTextField,
  SelectValueField,
  TextField,
  UserSelectField,
  type UserOption,
} from "./fields";
import { ErrorList, SubmitButton } from "./submit";
import { departmentLabel } from "./moc";
import { useFocusFirstInvalid } from "./focus-first-invalid";
import { SCOPE_LABELS } from "~/models/fleet/vessel.constants";

const departmentOptions = DEPARTMENTS.map((d) => ({ value: d, label: departmentLabel(d) }));

/** A vessel Part A may name (the register's active ones). */
export type VesselOption = { _id: string; name: string };

/** The scope select's options: office, fleet, then every active vessel by name. */
export const scopeOptions = (vessels: readonly VesselOption[]) => [
  { value: "office", label: SCOPE_LABELS.office },
  { value: "fleet", label: SCOPE_LABELS.fleet },
  ...vessels.map((v) => ({ value: v._id, label: v.name })),
];

/** Part A (originator): new MOC, draft editing, and revising before the implementer's assessment. */
export function PartAForm({
  id,
  users,
  vessels,
  lastResult,
  defaultValue,
  allowDraft,
  submitLabel,
  offerAttachments = false,
  followUp,
}: {
  id: string;
  users: UserOption[];
  vessels: VesselOption[];
  lastResult: SubmissionResult<string[]> | undefined;
  defaultValue?: PartADefaults;
  allowDraft: boolean;
  submitLabel: string;
  /** "Attach photos or documents next": the new MOC page goes on to the MOC's files page when ticked. */
  offerAttachments?: boolean;
  /** A follow-up's original, "moc:<id>" (issue 42): posted back so the new MOC is linked to it. */
  followUp?: string;
}) {
  const [form, fields] = useSchemaForm({
    id,
    schema: () => import("~/models/moc/moc.schema").then((m) => m.partAPageSchema),
    lastResult,
    defaultValue,
  });
  useFocusFirstInvalid(form.id, form.allErrors);
  return (
    <Form method="post" {...getFormProps(form)} className="card">
      <ErrorList id={form.errorId} errors={form.errors} />
      {followUp ? <input type="hidden" name="followUp" value={followUp} /> : null}
      <div className="stack">
        <TextField
          meta={fields.title}
          label="Title"
          hint="3 to 120 characters, how people will recognise it in lists and emails: “Bypass of ME2 HT alarm”."
        />
        <SelectValueField
          meta={fields.vessel}
          label="Vessel or scope"
          options={scopeOptions(vessels)}
          placeholder="Choose a vessel, office / shore or fleet-wide"
        />
        <UserSelectField
          meta={fields["implementer-name"]}
          label="Implementer"
          users={users}
          asRef
          hint="Who assesses and carries out the change."
        />
        <SelectValueField
          meta={fields["department-of-change"]}
          label="Department of change"
          options={departmentOptions}
          placeholder="Choose a department"
        />
        <RichTextField meta={fields["description-of-change"]} label="Description of change" />
        <TextField meta={fields["reason-for-change"]} label="Reason for change" multiline />
        <TextField
          meta={fields["hazards-seen"]}
          label="Hazards seen (optional)"
          multiline
          hint="What could go wrong, as you see it on board: the implementer's risk assessment starts from it."
        />
        <TextField
          meta={fields["target-date"]}
          label="Needed by (optional)"
          type="date"
          hint="When the change is needed; the implementer sets the MOC's target date in Part B."
        />
        <CheckboxGroupField
          meta={fields["affected-departments"]}
          label="Affected departments"
          options={departmentOptions}
        />
        <CheckboxGroupField
          meta={fields["departments-to-inform"]}
          label="Departments to inform"
          options={departmentOptions}
        />
        <SelectValueField
          meta={fields["change-type"]}
          label="Permanent or temporary"
          options={[
            { value: "permanent", label: "Permanent" },
            { value: "temporary", label: "Temporary (the original condition comes back)" },
          ]}
          placeholder="Permanent (the default)"
        />
        <TextField
          meta={fields["temporary-until"]}
          label="Temporary until (only for a temporary change)"
          type="date"
          hint="A temporary change (a bypass while a spare is on order, a temporary hose) names the date it must end; the approver approves it with the change. By then the original condition is restored, the change extended by the approver, or made permanent with a new MOC."
        />
        {offerAttachments ? (
          <label className="checkbox">
            <input type="checkbox" name="attach-files" value="on" /> Attach photos or documents next
          </label>
        ) : null}
      </div>
      <div className="form-actions">
        <SubmitButton name="intent" value="submit" pendingText="Submitting…">
          {submitLabel}
        </SubmitButton>
        {allowDraft ? (
          <SubmitButton name="intent" value="draft" className="button" pendingText="Saving…">
            Save draft
          </SubmitButton>
        ) : null}
      </div>
    </Form>
  );
}

type PartADefaults = DefaultValue<FormShape<typeof partAPageSchema>>;

/** The saved Part A of a MOC as the form's default values. */
export function partADefaults(form: OriginatorFormDoc | null | undefined): PartADefaults {
  if (!form) return undefined;
  const implementer = form["implementer-name"]?.value;
  const vessel = form.vessel?.value;
  return {
    title: form.title ?? undefined,
    // The select posts a vessel's id, "office" or "fleet".
    vessel: vessel ? { value: typeof vessel === "string" ? vessel : vessel._id } : undefined,
    "implementer-name": implementer ? { value: { _id: implementer._id } } : undefined,
    "description-of-change": form["description-of-change"] ?? undefined,
    "reason-for-change": form["reason-for-change"] ?? undefined,
    "department-of-change": form["department-of-change"] ?? undefined,
    "affected-departments": form["affected-departments"] ?? undefined,
    "departments-to-inform": form["departments-to-inform"] ?? undefined,
    "change-type": form["change-type"] ?? undefined,
    "temporary-until": form["temporary-until"] ?? undefined,
    "hazards-seen": form["hazards-seen"] ?? undefined,
    "target-date": form["target-date"] ?? undefined,
  };
}
