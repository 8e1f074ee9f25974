package plots

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"os"
	"path/filepath"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// DPI is the resolution of the PNG files and of the rasters (heat maps,
// colour bars) embedded in the SVG and PDF files.
const DPI = 150

// formats returns the file types of every figure, in the order written.
func formats() []string { return []string{"png", "svg", "pdf"} }

// figure is one drawing and its caption, to be written in every format.
type figure struct {
	// name is the file name without extension.
	name          string
	width, height vg.Length
	draw          func(c draw.Canvas)
	caption       string
}

// writeFigure writes f as name.png, name.svg, name.pdf and name.md into
// dir and returns the paths written.
func writeFigure(dir string, f *figure) (paths []string, err error) {
	for _, format := range formats() {
		b, err := render(f, format)
		if err != nil {
			return paths, fmt.Errorf("figure %s: %w", f.name, err)
		}
		p := filepath.Join(dir, f.name+"."+format)
		if err := writeFileAtomic(p, b); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	p := filepath.Join(dir, f.name+".md")
	if err := writeFileAtomic(p, []byte(f.caption)); err != nil {
		return paths, err
	}
	return append(paths, p), nil
}

// render draws f in format and returns the file's bytes. The drawing code
// works on validated data, but gonum panics on some degenerate inputs (an
// empty log axis); a panic is turned into an error so that one bad figure
// does not stop the others.
func render(f *figure, format string) (b []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing %s: %v", format, r)
		}
	}()
	var cw vg.CanvasWriterTo
	switch format {
	case "png":
		cw = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(f.width, f.height), vgimg.UseDPI(DPI),
			vgimg.UseBackgroundColor(color.White))}
	case "svg":
		cw = vgsvg.New(f.width, f.height)
	case "pdf":
		cw = pdfCanvas{vgpdf.New(f.width, f.height)}
	default:
		return nil, fmt.Errorf("unknown format %q", format)
	}
	c := draw.New(cw)
	if format != "png" {
		// vgimg paints its background itself; the vector formats start
		// transparent, and a viewer's dark mode would show through.
		c.SetColor(color.White)
		c.Fill(c.Rectangle.Path())
	}
	f.draw(c)
	var buf bytes.Buffer
	if _, err := cw.WriteTo(&buf); err != nil {
		return nil, err
	}
	if format == "svg" {
		return fixSVG(buf.Bytes()), nil
	}
	return buf.Bytes(), nil
}

// pdfCanvas corrects vgpdf's placement of images: vgpdf flips the page to
// put y upwards but hands images to fpdf, which assumes y downwards, so an
// image comes out upside down unless it is flipped first.
type pdfCanvas struct{ *vgpdf.Canvas }

// DrawImage draws img, flipped so that it appears upright.
func (c pdfCanvas) DrawImage(rect vg.Rectangle, img image.Image) {
	c.Canvas.DrawImage(rect, flipVertical(img))
}

// flipVertical returns img upside down, as NRGBA.
func flipVertical(img image.Image) *image.NRGBA {
	b := img.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			out.Set(x, b.Dy()-1-y, img.At(b.Min.X+x, b.Min.Y+y))
		}
	}
	return out
}

// fixSVG corrects vgsvg's image elements: they carry PNG data labelled as
// JPEG, which strict renderers (librsvg) refuse to draw; they keep their
// aspect ratio by SVG's default, which shrinks a colour bar's narrow image
// to a line; and they are smoothed when scaled, which blurs the cell edges
// of a heat map.
func fixSVG(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte("data:image/jpg;base64,"), []byte("data:image/png;base64,"))
	return bytes.ReplaceAll(b, []byte("<image "), []byte(`<image preserveAspectRatio="none" style="image-rendering:pixelated" `))
}

// writeFileAtomic writes b to path through a temporary file in the same
// folder and a rename, so that no reader sees half a figure.
func writeFileAtomic(path string, b []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriter(f)
	if _, err := io.Copy(w, bytes.NewReader(b)); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := errors.Join(w.Flush(), f.Chmod(0o644), f.Sync(), f.Close()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
