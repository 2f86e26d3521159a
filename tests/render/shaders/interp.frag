#version 450
layout(location = 0) smooth in float v_smooth;
layout(location = 1) noperspective in float v_noperspective;
layout(location = 2) flat in float v_flat;
layout(location = 3) centroid in float v_centroid;
layout(location = 0) out vec4 o;
void main() { o = vec4(v_smooth, v_noperspective, v_flat, v_centroid); }
