export { AppError, errors, type ErrorCode, type AppErrorInit } from './app-error';
