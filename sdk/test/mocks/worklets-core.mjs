// Test double of react-native-worklets-core: Node has one thread, so a
// function handed to a worklet runs directly, as a promise like the real
// createRunOnJS returns.
export const Worklets = {
  createRunOnJS: (fn) => async (...args) => fn(...args),
};
