// `npm run openapi`: writes the generated document to docs/openapi.json and the error-code table into docs/reference/http-api.md (the files a test compares with).
import { readFileSync, writeFileSync } from "node:fs";
import { withErrorCodeTable } from "./error-code-table.js";
import { renderOpenApiJson } from "./openapi-document.js";

const committedDocumentUrl = new URL("../../../docs/openapi.json", import.meta.url);
const referencePageUrl = new URL("../../../docs/reference/http-api.md", import.meta.url);

writeFileSync(committedDocumentUrl, renderOpenApiJson());
console.log(`wrote ${committedDocumentUrl.pathname}`);
writeFileSync(referencePageUrl, withErrorCodeTable(readFileSync(referencePageUrl, "utf8")));
console.log(`wrote the error-code table in ${referencePageUrl.pathname}`);
