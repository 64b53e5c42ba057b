// Test double of react-native for react-test-renderer: host components as
// plain element names, and the StyleSheet helpers the component uses.
export const View = 'View';
export const Text = 'Text';
export const Image = 'Image';
export const ImageBackground = 'ImageBackground';
export const ActivityIndicator = 'ActivityIndicator';
export const TouchableOpacity = 'TouchableOpacity';
export const StyleSheet = { create: (s) => s, absoluteFill: { position: 'absolute', left: 0, right: 0, top: 0, bottom: 0 } };
