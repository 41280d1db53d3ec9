export * from "./enums";
export * from "./users";
export * from "./email";
