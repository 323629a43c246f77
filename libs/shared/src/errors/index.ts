export { AppError, errors, type ErrorCode, type AppErrorInit } from './app-error';
export { cliMessage } from './cli-message';
