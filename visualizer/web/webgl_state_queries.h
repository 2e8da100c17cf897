#pragma once
// Compiled into Dear ImGui's OpenGL3 backend only (CMakeLists.txt: -include), on the web.
//
// Each frame the backend saves the GL state it will change and restores it afterwards, for a host
// that draws with GL too. In a browser most of those queries are answered from WebGL's own cache,
// but seven are not (the scissor box, the blend factors and equations): each is a synchronous
// round trip to the GPU process, which waits until that process has drawn everything queued,
// several milliseconds a frame under software WebGL on two cores. The page has no other GL
// drawing to restore: its platform sets what it needs before each frame (backdrop.cpp), and the
// backend sets its own state before drawing. So those seven are answered here with GL's initial
// values, and every other query goes to WebGL as before.
#include <GLES3/gl3.h>

static inline void tinyamp_web_get_integerv(GLenum name, GLint* values)
{
    switch (name) {
    case GL_SCISSOR_BOX: {
        GLint viewport[4];  // cached by WebGL: no round trip
        glGetIntegerv(GL_VIEWPORT, viewport);
        for (int i = 0; i < 4; ++i) values[i] = viewport[i];
        return;
    }
    case GL_BLEND_SRC_RGB:
    case GL_BLEND_SRC_ALPHA: *values = GL_ONE; return;
    case GL_BLEND_DST_RGB:
    case GL_BLEND_DST_ALPHA: *values = GL_ZERO; return;
    case GL_BLEND_EQUATION_RGB:
    case GL_BLEND_EQUATION_ALPHA: *values = GL_FUNC_ADD; return;
    default: glGetIntegerv(name, values);
    }
}
#define glGetIntegerv tinyamp_web_get_integerv
