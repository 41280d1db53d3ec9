import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["build/**", "node_modules/**", ".data/**", "test-results/**", "playwright-report/**", "uploads/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "no-console": ["error", { allow: ["error"] }],
    },
  },
  {
    // Playwright's fixture callback `use` is not React's; hooks rules apply to the app only.
    files: ["app/**/*.tsx"],
    plugins: { "react-hooks": reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    // The layers (docs/architecture.md): app/utils holds the low-level helpers (env, logging, http,
    // tokens, cookies, errors, db) that everything else builds on, so they never import a model, a
    // component, a route or the request glue in app/web.
    files: ["app/utils/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: [
                "~/models/*",
                "~/components/*",
                "~/routes/*",
                "~/web/*",
                "../models/*",
                "../components/*",
                "../routes/*",
                "../web/*",
              ],
              message:
                "app/utils is the lowest layer: it must not import models, components, routes or app/web (docs/architecture.md).",
            },
          ],
        },
      ],
    },
  },
  {
    // Models are the domain: they know nothing of the pages, the request glue or Remix, so the same
    // function serves a page, /api, a job and a script (docs/architecture.md). HTTP answers are
    // built in app/web.
    files: ["app/models/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              // Relative paths too, from app/models and from a folder inside it.
              group: [
                "~/components/*",
                "~/routes/*",
                "~/web/*",
                "../components/*",
                "../routes/*",
                "../web/*",
                "../../components/*",
                "../../routes/*",
                "../../web/*",
              ],
              message:
                "app/models must not import components, routes or app/web: what a page or HTTP needs lives there (docs/architecture.md).",
            },
            {
              group: ["@remix-run/*"],
              message: "app/models must not import Remix: responses and redirects are built in app/web or the route.",
            },
          ],
        },
      ],
    },
  },
  {
    // db/ is the bottom layer (schema, migrations, derived SQL): the app builds on it, never the
    // reverse. Scripts that need the domain live in scripts/.
    files: ["db/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["~/*", "#jobs/*", "../app/*", "../../app/*", "../jobs/*", "../../jobs/*"],
              message:
                "db/ must not import app/ or jobs/: move shared pure code down into db/, or the file up into scripts/ (docs/architecture.md).",
            },
          ],
        },
      ],
    },
  },
  {
    // Entry points print the first admin's password and the address to the console on purpose.
    files: ["app/server/**", "jobs/worker.ts", "db/**", "scripts/**", "tests/**"],
    rules: { "no-console": "off" },
  },
);
