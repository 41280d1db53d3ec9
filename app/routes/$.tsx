import { data, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Not found · Change Management" }];

/**
 * Any address no other route matches: a 404 inside the usual page (navigation bar and all),
 * instead of the framework's "No route matches URL".
 */
export function loader({ request }: LoaderFunctionArgs) {
  return data({ path: new URL(request.url).pathname }, { status: 404 });
}

export default function NotFoundPage() {
  return (
    <section className="error-page" aria-labelledby="error-title">
      <p className="error-code">404</p>
      <h1 id="error-title">Not found</h1>
      <p>There is nothing at this address. It may have been deleted, or the link is wrong.</p>
      <p>
        <a href="/" className="button">
          Go to the dashboard
        </a>
      </p>
    </section>
  );
}
