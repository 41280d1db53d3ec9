// The few parts of `oidc-provider` (which ships no types) the test provider uses.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  type Context = {
    path: string;
    req: IncomingMessage;
    res: ServerResponse;
    body: unknown;
    redirect: (url: string) => void;
  };

  class Grant {
    constructor(init: { clientId: string; accountId: string });
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: unknown);
    Grant: typeof Grant;
    use(middleware: (ctx: Context, next: () => Promise<void>) => Promise<void>): void;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<{ uid: string; prompt: { name: string } }>;
    interactionResult(
      req: IncomingMessage,
      res: ServerResponse,
      result: unknown,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<string>;
  }
}
