// Package safedir opens the files of a directory that others may have
// prepared: a state dir handed to the engine, or one to read that came from
// anywhere. The directory is opened once (Open) and every file of it is
// then named relative to that descriptor, by a plain name (no '/', no
// "..", never "."), so that renaming or replacing the directory's path
// afterwards changes nothing, and:
//
//   - a name that is a symbolic link is refused, never followed (openat with
//     O_NOFOLLOW): a link planted in the dir cannot make a write land, or a
//     read come from, outside it, nor elsewhere inside it;
//   - only regular files are opened: a named pipe, a device or a directory
//     is refused (the open itself does not wait: O_NONBLOCK, cleared after);
//   - a file opened for writing must have one link: a hard link planted to a
//     file elsewhere on the same file system is refused before anything is
//     written or truncated (O_TRUNC is applied after the checks);
//   - new files are created with O_EXCL (Create, and WriteFile's temporary
//     file), which never follows a link;
//   - WriteFile replaces a file whole (a temporary file in the directory,
//     renamed over the name, as package atomicfile does by path), and its
//     temporary files are named as atomicfile's (RemoveTemps clears them).
//
// Private checks what a writer needs of the directory itself, as ssh does of
// its key files (StrictModes): owned by this user or root, writable by no
// one else (no group or other write bit). Lock takes an exclusive advisory
// lock (flock) on the directory's own descriptor: unlinking or replacing a
// lock file inside it cannot let a second writer in.
//
// # Platforms
//
// On Linux every call is relative to the directory's descriptor (openat,
// unlinkat, renameat; a name's information through an O_PATH descriptor).
// Elsewhere the files are opened through os.Root, which keeps every open
// inside the directory; a name is checked not to be a link before it is
// opened and the file opened checked to be the one checked (os.SameFile), so
// a link is refused there too. Lock and Private are no-ops where the system
// has no flock or no Unix owners (Windows).
//
// What is not promised: the path handed to Open is the caller's, trusted as
// the operator named it (a link there is followed, as a shell would); a
// process running as the directory's owner can do anything to it.
package safedir
