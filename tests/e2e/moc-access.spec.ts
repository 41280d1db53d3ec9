import { expect, test } from "./moc-fixtures";

const hseqAnswers = {
  "hseq-change-adequately.value": "yes",
  "hseq-justification-satisfactory.value": "yes",
  "hseq-risk-assessment-covered.value": "yes",
  "decline-reason.value": "",
};

test(
  "someone not involved sees neither the record nor the form, and a posted form is refused",
  { tag: "@once" },
  async ({ cast, outsider, mocApi, openAs }) => {
    const moc = await mocApi.createAt(cast, "hseq");
    const page = await openAs(outsider);

    for (const path of [`/mocs/${moc._id}`, `/mocs/${moc._id}/hseq`, `/mocs/${moc._id}/actions`]) {
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(403);
      await expect(page.getByRole("heading", { name: "Not allowed" })).toBeVisible();
      await expect(page.getByRole("heading", { name: `MOC ${moc.serial_num}` })).toHaveCount(0);
      await expect(page.getByRole("button", { name: "Submit HSEQ review" })).toHaveCount(0);
    }
    await page.goto(`/mocs?q=${moc.serial_num}`);
    await expect(page.getByText("No MOCs match these filters.")).toBeVisible();

    // Sending the form anyway, with this user's session cookie.
    const posted = await page.request.post(`/mocs/${moc._id}/hseq`, { form: hseqAnswers, maxRedirects: 0 });
    expect(posted.status()).toBe(403);
    const after = await mocApi.get(moc._id);
    expect(after.status).toBe("c");
    expect(after.hseq_form).toBeNull();
    expect(after.logs).toHaveLength(moc.logs.length);
  },
);

test(
  "someone involved but without the right to a step gets no form and cannot post it",
  { tag: "@once" },
  async ({ cast, mocApi, openAs }) => {
    const moc = await mocApi.createAt(cast, "hseq");
    const page = await openAs(cast.implementer);

    // The record is theirs to see, without a button for the HSEQ review.
    await page.goto(`/mocs/${moc._id}`);
    await expect(page.getByRole("heading", { name: `MOC ${moc.serial_num}`, level: 1 })).toBeVisible();
    await expect(page.getByRole("link", { name: /^Open Part/ })).toHaveCount(0);

    const response = await page.goto(`/mocs/${moc._id}/hseq`);
    expect(response?.status()).toBe(403);
    await expect(page.getByRole("heading", { name: "Not allowed" })).toBeVisible();
    await expect(page.getByText("Only members of the HSEQ department can submit the HSEQ review.")).toBeVisible();
    await expect(page.getByRole("button", { name: "Submit HSEQ review" })).toHaveCount(0);

    const posted = await page.request.post(`/mocs/${moc._id}/hseq`, { form: hseqAnswers, maxRedirects: 0 });
    expect(posted.status()).toBe(403);
    expect((await mocApi.get(moc._id)).status).toBe("c");

    // The approver's step is theirs only later: its page sends them back to the record.
    const approver = await openAs(cast.approver);
    await approver.goto(`/mocs/${moc._id}/approver`);
    await expect(approver).toHaveURL(new RegExp(`/mocs/${moc._id}$`));
    await expect(approver.getByText("Part D (approval) is not open for you now.")).toBeVisible();
  },
);
