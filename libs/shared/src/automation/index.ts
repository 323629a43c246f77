export * from './workflow-rules';
