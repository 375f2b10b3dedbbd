# ONNX frontend sources (owned by the frontend helper)
