import { createContext, useContext } from "react";

/** The per-response CSP nonce, given to <Scripts> and friends during server rendering. */
const NonceContext = createContext<string>("");
export const NonceProvider = NonceContext.Provider;
export const useNonce = () => useContext(NonceContext);
