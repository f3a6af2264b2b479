/**
 * The console's run-time configuration, as the server gives it: the API's and the identity
 * service's addresses and the product's name (GET /config.json, and the same object written into
 * the page the server sends, in the JSON script element CONSOLE_CONFIG_ID), so one build runs at
 * any address.
 */
export type ConsoleConfig = {
  apiUrl: string;
  authUrl: string;
  productName: string;
};

/** The id of index.html's script element holding the configuration, when the server wrote it. */
export const CONSOLE_CONFIG_ID = "console-config";
