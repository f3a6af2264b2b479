// The API's current-user caches (api/accounts.ts) still import the loading cache by this name.
export { loadingCache as createExpiringCache } from "./loading-cache";
