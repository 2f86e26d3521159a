#version 450
// Indirect count draws (render/indirect_count): the vertex buffer places
// each quad in its own cell; the flat colour says which draw of the command
// drew it (DrawIndex) and with which instance, so a record drawn with the
// wrong index, or one drawn that should not be, changes the image.
#extension GL_ARB_shader_draw_parameters : require
layout(location = 0) in vec4 pos;
layout(location = 0) out vec4 v_smooth;
layout(location = 1) flat out vec4 v_flat;
void main()
{
   gl_Position = pos;
   v_smooth = vec4(0.0);
   v_flat = vec4(float(gl_DrawIDARB + 1) / 255.0, float(gl_InstanceIndex + 1) / 255.0,
                 200.0 / 255.0, 1.0);
}
