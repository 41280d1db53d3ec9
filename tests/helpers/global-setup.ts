import type { TestProject } from "vitest/node";
import { createTemplate, dropDatabase, startTestServer } from "./databases";

declare module "vitest" {
  export interface ProvidedContext {
    dbServerUrl: string;
    dbTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  const { serverUrl, embedded } = await startTestServer(".data/test-integration");
  const template = await createTemplate(serverUrl);
  project.provide("dbServerUrl", serverUrl);
  project.provide("dbTemplate", template);
  return async () => {
    await dropDatabase(serverUrl, template);
    await embedded?.stop();
  };
}
