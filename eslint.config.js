import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

/**
 * The model folders, bottom layer first (docs/architecture.md, "The model folders";
 * docs/decisions/060-record-kinds.md). A folder imports only the folders before it, type imports
 * too, so no two folders import each other and a rule's home is where its folder says. The audit
 * core (`audit`) sits below every record kind; `kinds` on top declares each kind's registry entry
 * and may import any folder.
 */
const MODEL_LAYERS = [
  "shared",
  "risk",
  "authz",
  "record-kind",
  "audit",
  "people",
  "messages",
  "sign-in",
  "records-out",
  "records",
  "circulations",
  "fleet",
  "workflow",
  "moc",
  "pcr",
  "archive",
  "insights",
  "review",
  "overview",
  "ops",
  "kinds",
];

/** What every file under app/models may not import (components, routes, app/web, Remix). */
const MODEL_PATTERNS = [
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
];

/** One config per model folder: the shared patterns, and the folders above it. */
const modelLayerConfigs = MODEL_LAYERS.map((folder, index) => {
  const above = MODEL_LAYERS.slice(index + 1);
  return {
    files: [`app/models/${folder}/**`],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            ...MODEL_PATTERNS,
            ...(above.length === 0
              ? []
              : [
                  {
                    // From the folder's files (../x) and from a folder inside it (../../x).
                    group: above.flatMap((f) => [`~/models/${f}/**`, `../${f}/**`, `../../${f}/**`]),
                    message: `app/models/${folder} may import only the model folders below it (${MODEL_LAYERS.slice(0, index).join(", ") || "none"}): move the shared rule down, or reach the kind through the record-kind registry (docs/architecture.md, "The model folders").`,
                  },
                ]),
          ],
        },
      ],
    },
  };
});

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
    rules: { "no-restricted-imports": ["error", { patterns: MODEL_PATTERNS }] },
  },
  // The model folders' layers (the configs above replace this rule's options for each folder's files).
  ...modelLayerConfigs,
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
