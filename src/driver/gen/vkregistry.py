# Reads vk.xml into the small model the Shale generators need: commands (with
# parameters, aliases, dispatch level and the versions/extensions that require
# them), structs (with member pointer/len information), extensions and enums.
import re
import xml.etree.ElementTree as ET

VERSIONS = {'VK_VERSION_1_0': (1, 0), 'VK_VERSION_1_1': (1, 1),
            'VK_VERSION_1_2': (1, 2), 'VK_VERSION_1_3': (1, 3)}

# Entry points Android's loader calls on the driver that the public registry
# lists only partially (it carries spec version 8 and marks the extension
# disabled). Declared in include/vulkan/vk_android_native_buffer.h.
ANDROID_NATIVE_BUFFER_SPEC = 11
ANDROID_NATIVE_BUFFER_COMMANDS = [
    ('vkGetSwapchainGrallocUsageANDROID', 'VkResult',
     [('VkDevice', 'device'), ('VkFormat', 'format'), ('VkImageUsageFlags', 'imageUsage'),
      ('int*', 'grallocUsage')]),
    ('vkGetSwapchainGrallocUsage2ANDROID', 'VkResult',
     [('VkDevice', 'device'), ('VkFormat', 'format'), ('VkImageUsageFlags', 'imageUsage'),
      ('VkSwapchainImageUsageFlagsANDROID', 'swapchainImageUsage'),
      ('uint64_t*', 'grallocConsumerUsage'), ('uint64_t*', 'grallocProducerUsage')]),
    ('vkGetSwapchainGrallocUsage3ANDROID', 'VkResult',
     [('VkDevice', 'device'), ('const VkGrallocUsageInfoANDROID*', 'grallocUsageInfo'),
      ('uint64_t*', 'grallocUsage')]),
    ('vkGetSwapchainGrallocUsage4ANDROID', 'VkResult',
     [('VkDevice', 'device'), ('const VkGrallocUsageInfo2ANDROID*', 'grallocUsageInfo'),
      ('uint64_t*', 'grallocUsage')]),
    ('vkAcquireImageANDROID', 'VkResult',
     [('VkDevice', 'device'), ('VkImage', 'image'), ('int', 'nativeFenceFd'),
      ('VkSemaphore', 'semaphore'), ('VkFence', 'fence')]),
    ('vkQueueSignalReleaseImageANDROID', 'VkResult',
     [('VkQueue', 'queue'), ('uint32_t', 'waitSemaphoreCount'),
      ('const VkSemaphore*', 'pWaitSemaphores'), ('VkImage', 'image'),
      ('int*', 'pNativeFenceFd')]),
]


class Param:
    def __init__(self, decl, name, typ, ptr, const, len_, optional, array):
        self.decl = decl        # full C declaration, e.g. "const VkBufferCopy* pRegions"
        self.name = name
        self.type = typ         # base type name, e.g. "VkBufferCopy"
        self.ptr = ptr          # pointer depth
        self.const = const
        self.len = len_         # len expression or None
        self.optional = optional
        self.array = array      # fixed array size string ("4", "VK_UUID_SIZE") or None


class Command:
    def __init__(self, name, ret, params):
        self.name = name
        self.ret = ret
        self.params = params
        self.alias_of = None    # canonical command name when this is an alias
        self.requires = []      # list of (version tuple or None, ext name or None, extra ext or None)
        self.platform = None    # protect macro or None

    @property
    def short(self):
        return self.name[2:]

    def level(self, reg):
        if self.name in ('vkCreateInstance', 'vkEnumerateInstanceExtensionProperties',
                         'vkEnumerateInstanceLayerProperties', 'vkEnumerateInstanceVersion'):
            return 'global'
        first = self.params[0].type if self.params else None
        first = reg.handle_base(first)
        if first == 'VkInstance':
            return 'instance'
        if first == 'VkPhysicalDevice':
            return 'physical_device'
        if first in ('VkDevice', 'VkQueue', 'VkCommandBuffer'):
            return 'device'
        return 'global'


class Extension:
    def __init__(self, name, number, type_, spec_version, platform):
        self.name = name
        self.number = number
        self.type = type_
        self.spec_version = spec_version
        self.platform = platform
        self.requires = []


def _text(elem):
    """The C text of a <param>/<member> without its <comment>."""
    parts = [elem.text or '']
    for child in elem:
        if child.tag != 'comment':
            parts.append(child.text or '')
        parts.append(child.tail or '')
    return re.sub(r'\s+', ' ', ''.join(parts)).strip()


def _parse_decl(elem):
    decl = _text(elem)
    name = elem.find('name').text
    typ = elem.find('type').text
    after = decl.split(typ, 1)[1].split(name, 1)[0]
    ptr = after.count('*')
    const = decl.startswith('const')
    m = re.search(r'\[(\w+)\]', decl.split(name, 1)[1]) if name in decl else None
    array = m.group(1) if m else None
    length = elem.get('altlen') or elem.get('len')
    return Param(decl, name, typ, ptr, const, length, elem.get('optional'), array)


class Registry:
    def __init__(self, path):
        self.root = ET.parse(path).getroot()
        self.handles = {}      # name -> parent type for aliases; value: (dispatchable, alias)
        self.structs = {}      # name -> list[Param]
        self.struct_info = {}  # name -> (sType enumerant or None, [structextends])
        self.unions = set()    # names in `structs` that are unions
        self.commands = {}
        self.extensions = []
        self.enums = {}        # enum type name -> list of (name, value)
        self.type_platform = {}  # type name -> protect macro
        self.platform_protect = {p.get('name'): p.get('protect')
                                 for p in self.root.iter('platform')}
        self._parse_types()
        self._parse_commands()
        self._parse_enums()
        self._parse_features()
        self._parse_extensions()
        self._add_android()

    def _parse_types(self):
        for t in self.root.find('types'):
            if t.tag != 'type':
                continue
            cat = t.get('category')
            if cat == 'handle':
                if t.get('alias'):
                    self.handles[t.get('name')] = ('alias', t.get('alias'))
                else:
                    name = t.find('name').text
                    disp = t.find('type').text == 'VK_DEFINE_HANDLE'
                    self.handles[name] = ('dispatchable' if disp else 'non_dispatchable', None)
            elif cat in ('struct', 'union') and not t.get('alias'):
                self.structs[t.get('name')] = [_parse_decl(m) for m in t.findall('member')
                                               if m.get('api') in (None, 'vulkan')]
                stype = None
                for m in t.findall('member'):
                    if m.find('name').text == 'sType' and m.get('values'):
                        stype = m.get('values')
                exts = (t.get('structextends') or '').split(',')
                self.struct_info[t.get('name')] = (stype, [e for e in exts if e])
                if cat == 'union':
                    self.unions.add(t.get('name'))

    def handle_base(self, name):
        while name in self.handles and self.handles[name][0] == 'alias':
            name = self.handles[name][1]
        return name

    def is_dispatchable(self, name):
        name = self.handle_base(name)
        return name in self.handles and self.handles[name][0] == 'dispatchable'

    def _parse_commands(self):
        aliases = []
        for c in self.root.find('commands'):
            if c.get('api') not in (None, 'vulkan'):
                continue
            if c.get('alias'):
                aliases.append((c.get('name'), c.get('alias')))
                continue
            proto = c.find('proto')
            name = proto.find('name').text
            ret = proto.find('type').text
            params = [_parse_decl(p) for p in c.findall('param') if p.get('api') in (None, 'vulkan')]
            self.commands[name] = Command(name, ret, params)
        for name, target in aliases:
            base = self.commands[target]
            cmd = Command(name, base.ret, base.params)
            cmd.alias_of = target
            self.commands[name] = cmd

    def _parse_enums(self):
        for e in self.root.findall('enums'):
            if e.get('type') not in ('enum', 'bitmask'):
                continue
            vals = []
            for v in e.findall('enum'):
                if v.get('alias') or v.get('api') not in (None, 'vulkan'):
                    continue
                if v.get('value') is not None:
                    vals.append((v.get('name'), int(v.get('value'), 0)))
                elif v.get('bitpos') is not None:
                    vals.append((v.get('name'), 1 << int(v.get('bitpos'))))
            self.enums[e.get('name')] = vals

    def _require_enum(self, r, extnumber):
        ext = r.get('extends')
        if not ext or r.get('alias') or ext not in self.enums:
            return
        if r.get('offset') is not None:
            num = int(r.get('extnumber') or extnumber)
            val = 1000000000 + (num - 1) * 1000 + int(r.get('offset'))
            if r.get('dir') == '-':
                val = -val
        elif r.get('value') is not None:
            val = int(r.get('value'), 0)
        elif r.get('bitpos') is not None:
            val = 1 << int(r.get('bitpos'))
        else:
            return
        if all(n != r.get('name') for n, _ in self.enums[ext]):
            self.enums[ext].append((r.get('name'), val))

    def _parse_features(self):
        for f in self.root.findall('feature'):
            if 'vulkan' not in f.get('api').split(','):
                continue
            ver = VERSIONS[f.get('name')]
            for req in f.findall('require'):
                for c in req.findall('command'):
                    self.commands[c.get('name')].requires.append((ver, None, None))
                for e in req.findall('enum'):
                    self._require_enum(e, None)

    def _parse_extensions(self):
        for x in self.root.find('extensions'):
            supported = x.get('supported').split(',')
            if 'vulkan' not in supported:
                continue
            spec = 1
            for e in x.iter('enum'):
                if e.get('name', '').endswith('_SPEC_VERSION') and e.get('value'):
                    spec = int(e.get('value').strip('"'))
            protect = self.platform_protect.get(x.get('platform'))
            ext = Extension(x.get('name'), int(x.get('number')), x.get('type'), spec, protect)
            self.extensions.append(ext)
            for req in x.findall('require'):
                extra = req.get('extension')
                ver = VERSIONS.get(req.get('feature'))
                for c in req.findall('command'):
                    cmd = self.commands[c.get('name')]
                    cmd.requires.append((ver, ext.name, extra))
                    if protect:
                        cmd.platform = protect
                for t in req.findall('type'):
                    if protect:
                        self.type_platform[t.get('name')] = protect
                for e in req.findall('enum'):
                    self._require_enum(e, ext.number)
        self.extensions.sort(key=lambda e: e.name)

    def _add_android(self):
        ext = Extension('VK_ANDROID_native_buffer', 11, 'device', ANDROID_NATIVE_BUFFER_SPEC, None)
        self.extensions.append(ext)
        self.extensions.sort(key=lambda e: e.name)
        for name, ret, params in ANDROID_NATIVE_BUFFER_COMMANDS:
            ps = []
            for typ, pname in params:
                base = typ.replace('const ', '').replace('*', '').strip()
                ps.append(Param(typ + ' ' + pname, pname, base, typ.count('*'),
                                typ.startswith('const'), None, None, None))
            cmd = Command(name, ret, ps)
            cmd.requires.append((None, ext.name, None))
            self.commands[name] = cmd

    def ext_by_name(self, name):
        for e in self.extensions:
            if e.name == name:
                return e
        return None
