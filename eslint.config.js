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
    // Entry points print the first admin's password and the address to the console on purpose.
    files: ["app/server/**", "jobs/worker.ts", "db/**", "tests/**"],
    rules: { "no-console": "off" },
  },
);
