export * from "./enums";
export * from "./users";
