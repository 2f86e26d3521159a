#version 450
// unit/tess_stages' draw: patch p covers x in [p % 3 - 1, p % 3], y in
// [-1, 1] (exact in float for the generator's 16.16 coordinates); the
// colour is TessCoord, vertex 2's blue and PrimitiveId + 1 (a second
// instance whose PrimitiveId went on counting would draw other alphas).
layout(quads, fractional_odd_spacing, ccw) in;
layout(location = 0) in vec4 c_color[];
layout(location = 0) out vec4 color;
void main()
{
   vec2 uv = gl_TessCoord.xy;
   gl_Position = vec4((uv.x - 1.0) + float(gl_PrimitiveID % 3), 2.0 * uv.y - 1.0, 0.5, 1.0);
   color = vec4(uv, c_color[2].z, float(gl_PrimitiveID + 1));
}
