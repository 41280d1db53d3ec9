import { Link, useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";

/** The page an OIDC step shows when it is refused: why, and the way back. */
export function OidcRefused() {
  const data = useLoaderData<{ message?: string } | null>();
  return (
    <div className="auth-card">
      <h1>Sign-in refused</h1>
      <p className="flash flash-error" role="alert">
        {data?.message ?? "The sign-in could not be completed."}
      </p>
      <p>
        <Link to="/login">Back to the sign-in page</Link>
      </p>
    </div>
  );
}

/** The login page's "Sign in with …" button: a form, so it works without JavaScript. */
export function OidcButton({ displayName, redirectTo }: { displayName: string; redirectTo: string }) {
  return (
    <Form method="post" action="/auth/oidc" reloadDocument className="stack">
      <input type="hidden" name="redirectTo" value={redirectTo} />
      <button type="submit" className="button button-primary oidc-button">
        Sign in with {displayName}
      </button>
    </Form>
  );
}
