/**
 * Words as people read them, shared by the pages, the messages, the print view, the PDF and the CSV
 * exports; no I/O, so components import it as well.
 */

/** The first letter upper-cased, the rest as given. */
export const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A department as it reads ("HSEQ", "Engineering"); "—" for none. */
export const departmentLabel = (department: string | null | undefined) =>
  !department ? "—" : department === "hseq" ? "HSEQ" : capitalise(department);
