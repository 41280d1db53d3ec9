export * from "./enums";
export * from "./users";
export * from "./email";
export * from "./mocs";
export * from "./pcrs";
