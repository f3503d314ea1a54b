// `npm run openapi`: writes the generated document to docs/openapi.json (the file a test compares with).
import { writeFileSync } from "node:fs";
import { renderOpenApiJson } from "./openapi-document.js";

const committedDocumentUrl = new URL("../../../docs/openapi.json", import.meta.url);

writeFileSync(committedDocumentUrl, renderOpenApiJson());
console.log(`wrote ${committedDocumentUrl.pathname}`);
