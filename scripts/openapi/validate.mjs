// Validates an OpenAPI document file with @apidevtools/swagger-parser (ESM, so run by node
// itself rather than inside jest's CommonJS runtime). Prints the version; exits 1 when invalid.
import SwaggerParser from '@apidevtools/swagger-parser';

try {
  const api = await SwaggerParser.validate(process.argv[2]);
  console.log(JSON.stringify({ valid: true, openapi: api.openapi }));
} catch (error) {
  console.log(JSON.stringify({ valid: false, message: String(error.message ?? error) }));
  process.exitCode = 1;
}
