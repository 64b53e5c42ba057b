// Test double of @react-native-community/image-editor: records the crop
// asked for and returns the photo's own bytes (Node has no JPEG codec to
// crop with); the server then verifies the real capture.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export default {
  async cropImage(uri, data) {
    globalThis.__tmbCamera.crops.push({ uri, ...data });
    const bytes = readFileSync(uri.startsWith('file://') ? fileURLToPath(uri) : uri);
    return { uri, width: data.displaySize.width, height: data.displaySize.height, base64: data.includeBase64 ? bytes.toString('base64') : undefined };
  },
};
